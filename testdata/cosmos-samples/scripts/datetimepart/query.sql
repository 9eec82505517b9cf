SELECT VALUE {
    getYear: DateTimePart("yyyy", "2016-05-29T08:30:00.1301617"),
    getMonth: DateTimePart("mm", "2016-05-29T08:30:00.1301617"),
    getDay: DateTimePart("dd", "2016-05-29T08:30:00.1301617"),
    getHour: DateTimePart("hh", "2016-05-29T08:30:00.1301617"),
    getMinute: DateTimePart("mi", "2016-05-29T08:30:00.1301617"),
    getSecond: DateTimePart("ss", "2016-05-29T08:30:00.1301617"),
    getMillisecond: DateTimePart("ms", "2016-05-29T08:30:00.1301617"),
    getMicrosecond: DateTimePart("mcs", "2016-05-29T08:30:00.1301617"),
    getNanosecond: DateTimePart("ns", "2016-05-29T08:30:00.1301617")
}