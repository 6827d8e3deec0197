"""College-wide rules with numbers, quoted alike by pages, PDFs, notices and FAQ answers."""

from __future__ import annotations

LEAVE_TOTAL_SEMESTERS = 6  # 일반휴학, 통산
LEAVE_AT_ONCE = 2  # 1회 신청 한도 (학기)
STARTUP_LEAVE_SEMESTERS = 4
FOREIGN_LEAVE_SEMESTERS = 2  # 외국인 학부생: 연속 휴학 한도 (체류 자격 때문에)
RETURN_APPLY_DAYS = 14  # 개강 전 복학 신청 마감 (일)
MAX_CREDITS = 18
HONORS_CREDITS = 21  # 직전 학기 평점 4.0 이상
HONORS_GPA = "4.0"
FRESHMAN_CREDITS = 19
WARNING_GPA = "1.75"
WARNING_DISMISSAL = 3  # 연속 학사경고 횟수
RETAKE_LIMIT = 24  # 재학 중 재수강 한도 (학점)
OVERTIME_FEES = (("1~3학점", "등록금의 1/6"), ("4~6학점", "등록금의 1/3"), ("7~9학점", "등록금의 1/2"),
                 ("10학점 이상", "등록금 전액"))
OVERTIME_MAX_CREDITS = 12
DEFER_SEMESTERS = 2  # 졸업유예 최대 학기
DEFER_FEE_PCT = 8  # 졸업유예 등록금 (수업료 대비 %)
TRANSFER_CREDIT_CAP = 65  # 편입학생 전적대 학점 인정 한도
TRANSFER_MAJOR_CAP = 15  # 그중 전공 인정 한도
EXCHANGE_MIN_GPA = "3.0"
EXCHANGE_TOEFL = 80
EXCHANGE_MAX_SEMESTERS = 2
EXCHANGE_CREDIT_CAP = 18  # 학기당 인정 학점
INTERNSHIP_CREDITS = (("4주(120시간)", 3), ("8주(240시간)", 6), ("16주(학기제)", 12))
INTERNSHIP_ALLOWANCE = 80  # 월 최대 (만원)
SEJONG_REGIONAL_INTERNSHIP_ALLOWANCE = 100  # 세종 지역기업 (만원)
DOUBLE_MAJOR_CREDITS = 36
MINOR_CREDITS = 21
MULTI_MAJOR_MIN_GPA = "2.5"
ACT_DOUBLE_MAJOR_QUOTA = 20  # 회계세무학과 복수전공 정원 (명)
MERIT_GPA = {"seoul": "3.8", "sejong": "3.5"}
MERIT_PCT = {"seoul": (100, 70, 40), "sejong": (100, 60, 30)}  # 수석, 차석, 우수 (등록금 %)
REGIONAL_TALENT_PCT = 50  # 세종캠퍼스 지역인재장학 (신입생 등록금 %)
RETURNING_SCHOLARSHIP = 50  # 복학생 정착장학 (만원)
FOREIGN_SCHOLARSHIP = {"TOPIK 4급": 30, "TOPIK 5급": 50, "TOPIK 6급": 70}  # 등록금 감면 %
WORK_STUDY_HOURS = 40  # 근로장학, 월 최대 시간
DORMS = {"seoul": ("새빛학사", 620, 148), "sejong": ("글로벌하우스", 840, 112)}  # 이름, 정원 (명), 학기당 (만원)
LOUNGE_SEATS = {"seoul": 180, "sejong": 120}  # 상경 라운지 (명 수용)
READING_ROOM_HOURS = {"seoul": "24시간", "sejong": "07:00~24:00"}
SHUTTLE = {"sejong": "조치원역-세종캠퍼스 순환 셔틀, 평일 15분 간격"}
